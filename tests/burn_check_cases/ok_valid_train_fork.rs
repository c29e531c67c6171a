// valid() then .train(): autodiff again, then forked to the GPU.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = trained_model().valid();
    export(&model);
    let mut model = model.train().fork(&gpu);
    let mut optim = AdamConfig::new().init();
    let loss = model.forward(x).mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(grads.len(), 2);
    model = optim.step(1e-3, model, grads);
}
