// A custom loop: a model loaded on the CPU, moved to the GPU with to_device, then trained.
fn main() {
    let cpu = Device::flex().autodiff();
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = load_model(&cpu);
    let mut model = model.to_device(&gpu); //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() { //~ no-step-0-check
        let loss = model.forward_loss(batch);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(1e-3, model, grads);
    }
}
