// The move hides in a closure: Option::map, an iterator's map and collect, fold, and a closure bound by let.
fn fit(mut model: Mlp, optim: &mut Optim) -> Mlp {
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    optim.step(1e-3, model, grads)
}

fn option_map(gpu: &Device, optim: &mut Optim, restored: Option<Mlp>) {
    let model = restored.map(|m| m.to_device(gpu)).unwrap(); //~ moved-then-trained
    fit(model, optim);
}

fn iterator_map(gpu: &Device, optim: &mut Optim, members: Vec<Mlp>) {
    let ensemble: Vec<Mlp> = members.into_iter().map(|m| m.to_device(gpu)).collect(); //~ moved-then-trained
    for member in ensemble {
        fit(member, optim);
    }
}

fn folded(gpu: &Device, optim: &mut Optim, model: Mlp) -> Mlp {
    batches().iter().fold(model.to_device(gpu), |model, batch| { //~ moved-then-trained
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        assert!(grads.len() == 4);
        optim.step(1e-3, model, grads)
    })
}

fn let_closure(gpu: &Device, optim: &mut Optim, model: Mlp) {
    let to_gpu = |m: Mlp| m.to_device(gpu); //~ moved-then-trained
    fit(to_gpu(model), optim);
}
