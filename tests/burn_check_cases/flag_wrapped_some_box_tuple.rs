// The moved model goes through an Option, a Box and a tuple before it trains.
fn fit(mut model: Mlp, optim: &mut Optim) -> Mlp {
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    optim.step(1e-3, model, grads)
}

fn from_option(gpu: &Device, optim: &mut Optim) {
    let slot = Some(Mlp::load("a.bpk", &Device::flex().autodiff()).to_device(gpu)); //~ moved-then-trained
    fit(slot.expect("a model"), optim);
}

fn from_box(gpu: &Device, optim: &mut Optim) {
    let boxed = Box::new(Mlp::load("b.bpk", &Device::flex().autodiff()).to_device(gpu)); //~ moved-then-trained
    fit(*boxed, optim);
}

fn from_tuple(gpu: &Device, optim: &mut Optim) {
    let cpu = Device::flex().autodiff();
    let (student, teacher) = (Mlp::load("s.bpk", &cpu).to_device(gpu), Mlp::load("t.bpk", &cpu).fork(gpu)); //~ moved-then-trained
    fit(student, optim);
    fit(teacher, optim);
    let pair = (Mlp::load("p.bpk", &cpu).to_device(gpu), 3); //~ moved-then-trained
    fit(pair.0, optim);
}
