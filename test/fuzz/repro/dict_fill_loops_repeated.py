# fuzz reproduction (seed 1): no diagnostics within 15 s under load — a 10,000-key dict filled in a loop was quadratic (a linear key scan per insertion), 38 times over
xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

model = nn.Sequential(nn.Linear(1024, 1024))
# Growing by appends, extends, splats, dict keys and joins in loops.
import torch.nn as nn

xs = [0]
for _ in range(30):
    xs.extend(xs)
ys = [1]
for _ in range(30):
    ys = [*ys, *ys]
t = (1,)
for _ in range(30):
    t = t + t
d = {}
for i in range(10050):
    d[i] = i
w = "ab"
for _ in range(30):
    w = "".join([w, w])
r = [0] * 10 ** 9

