# truth-harness: XLA_FLAGS=--xla_force_host_platform_device_count=8
"""The NNX MLP of nnx_sharded_init.py created sharded over 8 devices, on a
mesh whose axes are Auto (`jax.make_mesh(..., axis_types=(AxisType.Auto,))`):
XLA's partitioner carries the constraint back to the draws.
"""
import jax
from jax.sharding import AxisType
from flax import nnx

D_MODEL = 1024
D_FF = 8192


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.up = nnx.Linear(D_MODEL, D_FF, use_bias=False, rngs=rngs,
                             kernel_init=nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model")))
        self.down = nnx.Linear(D_FF, D_MODEL, use_bias=False, rngs=rngs,
                               kernel_init=nnx.with_partitioning(nnx.initializers.lecun_normal(), ("model", None)))

    def __call__(self, x):
        return self.down(nnx.gelu(self.up(x)))


@nnx.jit
def create_sharded_model():
    model = MLP(rngs=nnx.Rngs(0))
    state = nnx.state(model)
    pspecs = nnx.get_partition_spec(state)
    sharded_state = jax.lax.with_sharding_constraint(state, pspecs)
    nnx.update(model, sharded_state)
    return model


if __name__ == "__main__":
    mesh = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Auto,))
    with jax.set_mesh(mesh):
        model = create_sharded_model()
