"""An LSTM language model (2 layers, hidden 512, vocab 8000) trained with Adam, batch 16 x 64."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTMLM(nn.Module):
    def __init__(self, vocab=8000, emb=256, hidden=512, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


model = LSTMLM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
tokens = torch.randint(0, 8000, (16, 65))
for step in range(2):
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 8000), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
