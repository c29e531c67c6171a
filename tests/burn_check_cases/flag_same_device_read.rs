// Built on `device`, printed (which reads the parameters), moved to `device` again "in case".
fn train(device: &Device, x: Tensor<2>) {
    let model = LinearConfig::new(4, 1).init(device);
    println!("{}", model.weight.val());
    let model = model.to_device(device); //~ same-device-move
    let mut optim = AdamConfig::new().init();
    let loss = model.forward(x).mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert!(model.weight.is_require_grad());
    let _ = optim.step(1e-3, model, grads);
}
