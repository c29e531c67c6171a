// Inference weights (valid) moved to the autodiff device, trained without .train().
fn finetune(model: Model, device: &Device) {
    let model = model.valid();
    let mut model = model.to_device(device); //~ plain-without-train
    let mut optim = AdamConfig::new().init();
    loop { //~ no-step-0-check
        let loss = model.forward(next_batch()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(1e-4, model, grads);
    }
}
