// The trainer's field is replaced from outside its impl with a moved copy; its method trains the field.
struct Trainer {
    model: Mlp,
    optim: Optim,
}

impl Trainer {
    fn new(model: Mlp) -> Self {
        Self { model, optim: AdamConfig::new().init() }
    }

    fn fit(&mut self) {
        let grads = GradientsParams::from_grads(self.model.forward_loss(batch()).backward(), &self.model);
        assert_eq!(grads.len(), 4);
        self.model = self.optim.step(1e-3, self.model.clone(), grads);
    }
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut trainer = Trainer::new(ModelConfig::new().init(&gpu));
    trainer.model = Mlp::load("w.bpk", &Device::flex().autodiff()).to_device(&gpu); //~ moved-then-trained
    trainer.fit();
}
