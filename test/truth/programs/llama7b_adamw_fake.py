# truth: fake-tensors
"""A Llama-2-7B-shaped causal LM (transformers LlamaForCausalLM from its
config: hidden 4096, 32 layers, 32 heads, MLP 11008, vocabulary 32000) built
in bfloat16 and trained with AdamW on one sequence of 512 tokens.

Full size: the truth harness runs it under FakeTensorMode (the first line),
which measures every tensor's storage without allocating it."""
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
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
input_ids = torch.randint(0, config.vocab_size, (1, 512))
for step in range(2):
    loss = model(input_ids=input_ids, labels=input_ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
