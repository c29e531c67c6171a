// Trains the model it is given, with chapter 12's step-0 check.
pub fn run(mut model: Mlp) -> Mlp {
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    optim.step(1e-3, model, grads)
}
