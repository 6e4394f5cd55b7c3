"""A BERT-style encoder (4 layers, d=256, post-LN, padding attention mask)
fine-tuned for 2-way classification with AdamW, batch 16 x 128."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, MAX_LEN, DIM, HEADS, LAYERS = 8000, 128, 256, 4, 4


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(DIM, DIM)
        self.key = nn.Linear(DIM, DIM)
        self.value = nn.Linear(DIM, DIM)
        self.out = nn.Linear(DIM, DIM)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, mask):
        B, T, _ = x.shape
        hd = DIM // HEADS
        q = self.query(x).view(B, T, HEADS, hd).transpose(1, 2)
        k = self.key(x).view(B, T, HEADS, hd).transpose(1, 2)
        v = self.value(x).view(B, T, HEADS, hd).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(hd)
        scores = scores + (1.0 - mask[:, None, None, :]) * -10000.0
        probs = self.dropout(F.softmax(scores, dim=-1))
        ctx = (probs @ v).transpose(1, 2).reshape(B, T, DIM)
        return self.out(ctx)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = SelfAttention()
        self.ln1 = nn.LayerNorm(DIM)
        self.ff1 = nn.Linear(DIM, 4 * DIM)
        self.ff2 = nn.Linear(4 * DIM, DIM)
        self.ln2 = nn.LayerNorm(DIM)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, mask):
        x = self.ln1(x + self.dropout(self.attn(x, mask)))
        return self.ln2(x + self.dropout(self.ff2(F.gelu(self.ff1(x)))))


class BertClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(MAX_LEN, DIM)
        self.ln = nn.LayerNorm(DIM)
        self.layers = nn.ModuleList([EncoderLayer() for _ in range(LAYERS)])
        self.classifier = nn.Linear(DIM, 2)

    def forward(self, input_ids, attention_mask):
        T = input_ids.shape[1]
        x = self.ln(self.tok(input_ids) + self.pos(torch.arange(T)))
        for layer in self.layers:
            x = layer(x, attention_mask)
        return self.classifier(x[:, 0])


model = BertClassifier()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
input_ids = torch.randint(0, VOCAB, (16, MAX_LEN))
attention_mask = torch.ones(16, MAX_LEN)
attention_mask[:, 100:] = 0.0
labels = torch.randint(0, 2, (16,))
for step in range(2):
    logits = model(input_ids, attention_mask)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
