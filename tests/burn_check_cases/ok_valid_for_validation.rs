// Burn's custom training loop: train on the autodiff model, validate on model.valid().
pub fn run(device: Device) {
    let device = device.autodiff();
    let mut model = config.model.init(&device);
    let mut optim = config.optimizer.init();
    for epoch in 1..config.num_epochs + 1 {
        for (iteration, batch) in dataloader_train.iter().enumerate() { //~ no-step-0-check
            let output = model.forward(batch.images);
            let loss = CrossEntropyLoss::new(None, &output.device()).forward(output.clone(), batch.targets.clone());
            let grads = loss.backward();
            let grads = GradientsParams::from_grads(grads, &model);
            model = optim.step(config.lr, model, grads);
        }
        let model_valid = model.valid();
        for (iteration, batch) in dataloader_test.iter().enumerate() {
            let output = model_valid.forward(batch.images);
            println!("[Valid - Epoch {epoch} - Iteration {iteration}] {}", output.mean());
        }
    }
}
