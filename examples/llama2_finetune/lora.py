# Llama-2-7B, Trainer, per-device batch 4 × 512, bf16, AdamW, LoRA r=16 on q_proj / v_proj
# (docs/training.md, "LoRA and QLoRA"). `oomlens check --device a100-80gb lora.py`
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

tok = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
enc = tok(["hello"], padding="max_length", max_length=512)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, bf16=True, optim="adamw_torch")
Trainer(model=model, args=args).train()
