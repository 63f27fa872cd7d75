"""The tensors: `AbstractTensor` and the bases it stands on (`tensor`), reading and writing through a
stack (`evaluate`), the view wrappers (`views`) and the user-facing methods, one mixin per job
(`surface`)."""
