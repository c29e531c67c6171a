// A helper moves the model with to_device and returns it; the caller forks what it got back.
fn to_gpu(model: Mlp, device: &Device) -> Mlp {
    model.to_device(device)
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = Mlp::load("weights.bpk", &Device::flex().autodiff());
    let mut model = to_gpu(model, &gpu).fork(&gpu); //~ fork-after-to_device
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
