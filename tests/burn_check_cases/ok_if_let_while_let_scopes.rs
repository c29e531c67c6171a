// `if let` and `while let` bind new names: the inner `model` is not the outer, moved one.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = Mlp::load("weights.bpk", &gpu).to_device(&Device::flex());
    println!("{}", model.forward(probe()));
    if let Some(model) = resume_from_checkpoint(&gpu) {
        fit(model);
    }
    let mut queue = pending_models(&gpu);
    while let Some(model) = queue.pop() {
        fit(model);
    }
}

fn fit(mut model: Mlp) -> Mlp {
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    optim.step(1e-3, model, grads)
}
