"""What tests share besides fixtures: real stand-ins (an upstream LLM server), Lambda
plumbing, constants."""
