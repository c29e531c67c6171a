// The article's lazy-to_device: built and moved before anything reads it; it is built on the GPU.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = LinearConfig::new(4, 1).init(&Device::flex().autodiff()).to_device(&gpu);
    let mut optim = AdamConfig::new().init();
    for _ in 0..5 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 2);
        model = optim.step(1e-1, model, grads);
    }
}
