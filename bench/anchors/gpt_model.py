"""The GPT example's model (examples/text-generation/gpt.h: pre-norm blocks, learned positions, causal attention) in
PyTorch, for the anchors (torch_gpu_anchor.py, torch_ddp_anchor.py)."""
import torch
import torch.nn as nn


class GPT(nn.Module):
    def __init__(s, vocab=8192, d=512, h=8, layers=6, seq=512):
        super().__init__()
        s.tok = nn.Embedding(vocab, d); s.pos = nn.Embedding(seq, d)
        layer = nn.TransformerEncoderLayer(d, h, 4 * d, dropout=0.0, batch_first=True, norm_first=True,
                                           activation="gelu")
        s.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        s.norm = nn.LayerNorm(d); s.head = nn.Linear(d, vocab, bias=False)
        s.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))
    def forward(s, idx):
        t = idx.shape[1]
        x = s.tok(idx) + s.pos(torch.arange(t, device=idx.device))
        x = s.blocks(x, mask=s.mask[:t, :t], is_causal=True)
        return s.head(s.norm(x))
