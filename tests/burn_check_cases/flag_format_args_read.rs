// `println!("{model}")` prints the model, which reads (builds) its parameters: the later move makes op outputs.
fn main() {
    let cpu = Device::flex().autodiff();
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = ModelConfig::new().init(&cpu);
    println!("{model}");
    let mut model = model.to_device(&gpu); //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
