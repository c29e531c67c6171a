// The move happens in one branch of an `if`: when that branch runs, the moved model trains.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = load_model(&Device::flex().autodiff());
    let mut model = if use_gpu() { model.to_device(&gpu) } else { model }; //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
}

fn assigned_in_a_branch(gpu: &Device) {
    let mut model = load_model(&Device::flex().autodiff());
    if use_gpu() {
        model = model.to_device(gpu); //~ moved-then-trained
    }
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
}
