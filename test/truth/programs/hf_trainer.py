"""A transformers GPT-2 (small in-code config, no download) trained with the
Trainer: a tiny in-file dataset of 4 x 128-token examples, two steps of the
Trainer's default optimizer (AdamW, torch's fused kernel) on the CPU."""
import tempfile

import torch
from torch.utils.data import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

SEQ_LEN = 128


class TokenDataset(Dataset):
    def __init__(self, n_examples, seq_len, vocab_size):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab_size, (n_examples, seq_len), generator=g)

    def __len__(self):
        return self.ids.shape[0]

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


config = GPT2Config(vocab_size=8192, n_positions=SEQ_LEN, n_embd=256, n_layer=4, n_head=4)
model = GPT2LMHeadModel(config)
train_dataset = TokenDataset(8, SEQ_LEN, config.vocab_size)

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(
        output_dir=out_dir,
        max_steps=2,
        per_device_train_batch_size=4,
        learning_rate=5e-5,
        weight_decay=0.01,
        use_cpu=True,
        report_to=[],
        save_strategy="no",
        logging_strategy="no",
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_dataset)
    trainer.train()
