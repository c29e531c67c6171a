// Two functions named `run` in two modules: the moved model goes to infer::run, which only predicts.
mod train {
    pub fn run(mut model: Mlp) -> Mlp {
        let mut optim = AdamConfig::new().init();
        let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
        assert_eq!(grads.len(), 4);
        optim.step(1e-3, model, grads)
    }
}

mod infer {
    pub fn run(model: Mlp) {
        println!("{}", model.forward(probe()));
    }
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = Mlp::load("weights.bpk", &Device::flex().autodiff());
    infer::run(model.clone().to_device(&Device::flex()));
    train::run(model.fork(&gpu));
}
