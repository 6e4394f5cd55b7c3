# Llama-2-7B QLoRA: 4-bit nf4 with double quantisation, bf16 compute, LoRA r=16 on q_proj / v_proj,
# Trainer at per-device batch 4 × 512 (docs/training.md, "LoRA and QLoRA"). `oomlens check --device a100-80gb qlora.py`
import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig, Trainer, TrainingArguments

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)
tok = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb, torch_dtype=torch.bfloat16)
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
enc = tok(["hello"], padding="max_length", max_length=512)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, bf16=True, optim="adamw_torch")
Trainer(model=model, args=args).train()
