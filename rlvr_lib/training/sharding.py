"""A frozen model (the reference copy) sharded like the policy under accelerate's FSDP (configs/accelerate/).

TRL's ``prepare_fsdp`` applies FSDP2's ``fully_shard`` to the root module only, so a forward pass gathers the whole
model on every card at once (15 GiB in bf16 for a 7B model); here every decoder layer (the model's
``_no_split_modules``, accelerate's TRANSFORMER_BASED_WRAP) is its own unit, as accelerate shards the policy, so a
pass gathers one layer at a time. FSDP1 configs go to TRL's ``prepare_fsdp``.
"""

from __future__ import annotations


def shard_frozen(model, accelerator):
    """``model`` (frozen, on the CPU or a GPU) sharded over the processes of ``accelerator``'s FSDP plugin."""
    plugin = accelerator.state.fsdp_plugin
    if plugin.fsdp_version != 2:
        from trl.models import prepare_fsdp

        return prepare_fsdp(model, accelerator)
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    kwargs = dict(
        reshard_after_forward=True,
        mp_policy=plugin.mixed_precision_policy or MixedPrecisionPolicy(),
        offload_policy=plugin.cpu_offload,
    )
    layers = set(getattr(model, "_no_split_modules", None) or [])
    for module in model.modules():
        if type(module).__name__ in layers:
            fully_shard(module, **kwargs)
    fully_shard(model, **kwargs)
    return model.eval()
