// The same device under another name (`let gpu = device.clone()`): still a move to where it is.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let gpu = device.clone();
    let model = ModelConfig::new().init(&device).load_record(record);
    let mut model = model.to_device(&gpu); //~ same-device-move
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
