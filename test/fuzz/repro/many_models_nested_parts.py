# fuzz reproduction (seed 1, 15-minute run): 4,500 lines, 241 models with nested parts; its analysis took 18–34 s (the part-of test paired every candidate record with every other) and held back the diagnostics of the other open documents past 15 s. Now ~5 s.
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):(8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

 ) forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch
e", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import xn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
# Lightning 1.x command-line wiring: the data module from the namespace (from_argparse_args takes the entries that
# are its __init__ parameters), its class attribute `dims` sizing the model, the model from **vars(args).
from argparse import ArgumentParser

import torch.nn as nn
from pytorch_lightning import LightningDataModule, LightningModule, Trainer


class Digits(LightningDataModule):
    dims = (1, 8, 8)

    def __init__(self, data_dir=".", batch_size=32, num_workers=2):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size


class Classifier(LightningModule):
    def __init__(self, input_dim, hidden=16, depth=2, n_classes=10, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        layers = [nn.Linear(input_dim, hidden)]
        for _ in range(depth - 1):
            layers.append(nn.Linear(hidden, hidden))
        self.body = nn.Sequential(*layers, nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.body(x.flatten(1))


def cli_main():
    parser = ArgumentParser()
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--data_dir", type=str, default="data")
    args = parser.parse_args()
    dm = Digits.from_argparse_args(args)
    args.input_dim = dm.dims[-1] * dm.dims[-2]
    model = Classifier(**vars(args))
    Trainer(max_epochs=1).fit(model, datamodule=dm)


if __name__ == "__main__":
    cli_main()
