// Shadowing: a moved copy lives only inside a block, for a prediction; the outer, forked model trains.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = load_model(&Device::flex().autodiff()).fork(&gpu);
    {
        let model = model.clone().to_device(&Device::flex());
        println!("before: {}", model.forward(probe.clone()));
    }
    let mut optim = AdamConfig::new().init();
    let loss = model.forward(x).mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(grads.len(), 2);
    model = optim.step(1e-3, model, grads);
}
