// Two types have a method `fit`; one trains, one does not. The receiver's type is not known from the
// syntax, so the finding says which one it assumed.
impl Fit for Mlp {
    fn fit(mut self, optim: &mut Optim) -> Self {
        let grads = GradientsParams::from_grads(self.forward_loss(batch()).backward(), &self);
        assert_eq!(grads.len(), 4);
        optim.step(1e-3, self, grads)
    }
}

impl Fit for Baseline {
    fn fit(self, _optim: &mut Optim) -> Self {
        self
    }
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut optim = AdamConfig::new().init();
    let model = load_model(&Device::flex().autodiff()).to_device(&gpu); //~ moved-then-trained
    model.fit(&mut optim);
}
