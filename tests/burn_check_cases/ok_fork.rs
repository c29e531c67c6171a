// Loaded on the CPU, moved with fork: fresh leaves on the GPU.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = load_model(&Device::flex().autodiff());
    let mut model = model.fork(&gpu);
    assert!(model.weight.is_require_grad());
    let mut optim = AdamConfig::new().init();
    for _ in 0..5 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(1e-3, model, grads);
    }
}
