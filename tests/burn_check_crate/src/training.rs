// Trains the model it is given, with the step-0 check of chapter 12.
pub fn fit(mut model: Mlp, device: &Device) -> Mlp {
    let mut optim = AdamConfig::new().init();
    for batch in batches(device) {
        let loss = model.forward(batch.x).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
    model
}
