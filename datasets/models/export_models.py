#!/usr/bin/python3
"""Exports the models Tessel's graph-level work is measured on, run with Debian's Python
(python3-torch, python3-torchvision, python3-onnx):

    /usr/bin/python3 datasets/models/export_models.py --out build/models [--only resnet18,dqn]

For each model NAME it writes NAME.onnx (opset 13), NAME.pt (TorchScript, for libtorch baselines),
NAME.input.npy (one input) and NAME.output.npy (PyTorch's output for that input). Weights are random
from a fixed seed; batch-norm running statistics are set to random values so that normalization does
real work (a freshly built network has mean 0 and variance 1, which hides mistakes).

The models: ResNet-18 and MobileNet-V2 (torchvision, batch 1, 3x224x224), and the small ones of the
TVM paper: the Nature DQN (4x84x84 frames), a DCGAN generator (a 100-d code to a 3x64x64 image) and
an LSTM language model (embedding, one LSTM layer unrolled over 8 tokens, decoder). For the paper's
fusion ablation, each of ResNet-18's twelve convolution shapes C1..C12 (docs/workloads.md) alone
as conv+bn+relu: conv_bn_relu_C1 .. conv_bn_relu_C12.
Batch normalization stays in the ONNX graph (the exporter would fold it into the convolutions).
Files are written to a temporary name and renamed, so an interrupted export never leaves a file
that looks complete; a stamp file lists what was written, for the build to depend on.
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torchvision

SEED = 20180801  # fixed: the same weights, inputs and outputs on every machine
OPSET = 13


def randomize_batch_norm(model, generator):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.rand(c, generator=generator) * 0.4 - 0.2)
            m.running_var.copy_(torch.rand(c, generator=generator) * 1.5 + 0.5)
            m.weight.data.copy_(torch.rand(c, generator=generator) * 1.0 + 0.5)
            m.bias.data.copy_(torch.rand(c, generator=generator) * 0.4 - 0.2)


class DQN(nn.Module):
    """The Nature DQN (Mnih et al. 2015): three convolutions and two dense layers over 4 frames."""

    def __init__(self, actions=18):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(4, 32, 8, stride=4), nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=1), nn.ReLU())
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64 * 7 * 7, 512), nn.ReLU(), nn.Linear(512, actions))

    def forward(self, x):
        return self.head(self.features(x))


class DcganGenerator(nn.Module):
    """The DCGAN generator (Radford et al. 2016): transposed convolutions from a code to 64x64."""

    def __init__(self, code=100, width=64):
        super().__init__()

        def up(cin, cout, stride, pad):
            return [nn.ConvTranspose2d(cin, cout, 4, stride, pad, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

        self.net = nn.Sequential(
            *up(code, width * 8, 1, 0), *up(width * 8, width * 4, 2, 1), *up(width * 4, width * 2, 2, 1),
            *up(width * 2, width, 2, 1), nn.ConvTranspose2d(width, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class LstmLanguageModel(nn.Module):
    """A word-level LSTM language model (as PyTorch's example): embedding, LSTM, decoder."""

    def __init__(self, vocabulary=1000, embedding=128, hidden=256):
        super().__init__()
        self.embed = nn.Embedding(vocabulary, embedding)
        self.lstm = nn.LSTM(embedding, hidden)
        self.decode = nn.Linear(hidden, vocabulary)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.decode(out)


# ResNet-18's convolution layers (datasets/workloads.cpp's C1..C12): input size, in and out
# channels, kernel, stride, padding.
RESNET18_LAYERS = {
    "C1": (224, 3, 64, 7, 2, 3), "C2": (56, 64, 64, 3, 1, 1), "C3": (56, 64, 64, 1, 1, 0),
    "C4": (56, 64, 128, 3, 2, 1), "C5": (56, 64, 128, 1, 2, 0), "C6": (28, 128, 128, 3, 1, 1),
    "C7": (28, 128, 256, 3, 2, 1), "C8": (28, 128, 256, 1, 2, 0), "C9": (14, 256, 256, 3, 1, 1),
    "C10": (14, 256, 512, 3, 2, 1), "C11": (14, 256, 512, 1, 2, 0), "C12": (7, 512, 512, 3, 1, 1),
}


def conv_bn_relu(layer, generator):
    """One ResNet-18 layer as its network has it: a convolution without bias, batch norm, ReLU."""
    size, cin, cout, kernel, stride, pad = RESNET18_LAYERS[layer]
    model = nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, pad, bias=False), nn.BatchNorm2d(cout), nn.ReLU())
    return model, torch.rand(1, cin, size, size, generator=generator)


def build(name, generator):
    """The model in eval mode and one example input."""
    if name == "resnet18":
        model, x = torchvision.models.resnet18(), torch.rand(1, 3, 224, 224, generator=generator)
    elif name == "mobilenet_v2":
        model, x = torchvision.models.mobilenet_v2(), torch.rand(1, 3, 224, 224, generator=generator)
    elif name == "dqn":
        model, x = DQN(), torch.rand(1, 4, 84, 84, generator=generator)
    elif name == "dcgan":
        model, x = DcganGenerator(), torch.randn(1, 100, 1, 1, generator=generator)
    elif name == "lstm_lm":
        model, x = LstmLanguageModel(), torch.randint(0, 1000, (8, 1), generator=generator)
    elif name.startswith("conv_bn_relu_") and name[len("conv_bn_relu_"):] in RESNET18_LAYERS:
        model, x = conv_bn_relu(name[len("conv_bn_relu_"):], generator)
    else:
        raise SystemExit(f"export_models.py: unknown model '{name}'; known: {', '.join(MODELS)}")
    randomize_batch_norm(model, generator)
    return model.eval(), x


MODELS = ["resnet18", "mobilenet_v2", "dqn", "dcgan", "lstm_lm"] + ["conv_bn_relu_" + c for c in RESNET18_LAYERS]


def save_atomically(path, write):
    tmp = path + ".tmp"
    write(tmp)
    os.replace(tmp, path)


def export(name, out_dir):
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model, x = build(name, generator)
    with torch.no_grad():
        y = model(x)
        base = os.path.join(out_dir, name)
        save_atomically(base + ".input.npy", lambda p: np.save(open(p, "wb"), x.numpy()))
        save_atomically(base + ".output.npy", lambda p: np.save(open(p, "wb"), y.numpy()))
        save_atomically(base + ".pt", lambda p: torch.jit.trace(model, x).save(p))
        # PRESERVE keeps batch normalization as its own (inference) operator instead of folding it
        # into the convolution during export: folding it is the graph optimizer's job.
        save_atomically(base + ".onnx", lambda p: torch.onnx.export(
            model, x, p, opset_version=OPSET, input_names=["input"], output_names=["output"],
            training=torch.onnx.TrainingMode.PRESERVE))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="folder to write the models into")
    parser.add_argument("--only", default=",".join(MODELS), help="comma-separated models (default: all)")
    parser.add_argument("--stamp", help="file to write when every model is exported")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")  # the exporter's notes on shape inference, not problems here
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for name in args.only.split(","):
        start = time.time()
        export(name, args.out)
        print(f"exported {name} in {time.time() - start:.1f} s", file=sys.stderr)
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("\n".join(args.only.split(",")) + "\n")


if __name__ == "__main__":
    main()
