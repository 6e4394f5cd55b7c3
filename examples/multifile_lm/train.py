"""Trains model.LM with the sizes in configs/base.yaml (python train.py --config configs/base.yaml)."""
import argparse

import torch
import torch.nn.functional as F
import yaml

from model import LM, LMConfig


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/base.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    model = LM(LMConfig(**cfg["model"])).to("cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"])
    B, T = cfg["train"]["batch_size"], cfg["train"]["seq_len"]
    for step in range(1000):
        idx = torch.randint(0, cfg["model"]["vocab_size"], (B, T), device="cuda")
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), idx.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
