# oomlens-test: device=h100-80gb versions=transformers==4.57.1 fix=OOM201 unsafe
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")
