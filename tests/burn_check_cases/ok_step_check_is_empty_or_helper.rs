// Step-0 checks written another way: grads.is_empty(), and a helper that asserts the count.
fn check_step(grads: &GradientsParams, expected: usize) {
    assert_eq!(grads.len(), expected, "some parameters got no gradient");
}

fn train_a(mut model: Mlp, device: &Device) {
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        if grads.is_empty() {
            panic!("no gradient at all: is the model a to_device output?");
        }
        model = optim.step(1e-3, model, grads);
    }
}

fn train_b(mut model: Mlp, device: &Device) {
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        check_step(&grads, 4);
        model = optim.step(1e-3, model, grads);
    }
}
