# truth: fake-tensors
"""The Llama-2-7B-shaped causal LM of llama7b_adamw_fake.py, trained with
torch's fused AdamW (updated in place: no step temporaries) on 2 sequences
of 2048 tokens, where what autograd saves in the forward sets the peak.

Full size: the truth harness runs it under FakeTensorMode (the first line)."""
import torch
from transformers import AutoModelForCausalLM, LlamaConfig

config = LlamaConfig(
    hidden_size=4096,
    intermediate_size=11008,
    num_hidden_layers=32,
    num_attention_heads=32,
    vocab_size=32000,
    max_position_embeddings=4096,
)
model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
input_ids = torch.randint(0, config.vocab_size, (2, 2048))
for step in range(2):
    loss = model(input_ids=input_ids, labels=input_ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
