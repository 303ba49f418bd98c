"""The guide's CNN (examples/guide/model.hpp) in PyTorch, for the anchors (torch_cpu_anchor.py, torch_gpu_anchor.py,
torch_guide_epoch.py)."""
import torch.nn as nn
import torch.nn.functional as F


class Guide(nn.Module):
    def __init__(s, hidden=512, classes=10):
        super().__init__()
        s.conv1 = nn.Conv2d(1, 8, 3); s.conv2 = nn.Conv2d(8, 16, 3)
        s.pool = nn.AdaptiveAvgPool2d((8, 8)); s.drop = nn.Dropout(0.5)
        s.l1 = nn.Linear(16*8*8, hidden); s.l2 = nn.Linear(hidden, classes)
    def forward(s, x):
        b, h, w = x.shape
        x = x.reshape(b, 1, h, w)
        x = s.drop(s.conv1(x)); x = s.drop(s.conv2(x)); x = F.relu(x)
        x = s.pool(x).reshape(b, -1)
        x = F.relu(s.drop(s.l1(x)))
        return s.l2(x)
