// Helpers that move the model and return it: a free function, a method on self, a trait method.
fn place(model: Mlp, device: &Device) -> Mlp {
    model.to_device(device) //~ moved-then-trained
}

trait Place {
    fn place_on(self, device: &Device) -> Self;
}

impl Place for Mlp {
    fn place_on(self, device: &Device) -> Self {
        self.to_device(device) //~ moved-then-trained
    }
}

impl Mlp {
    fn moved_to(self, device: &Device) -> Self {
        let moved = self.to_device(device); //~ moved-then-trained
        moved
    }
}

fn fit(mut model: Mlp, optim: &mut Optim) -> Mlp {
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    optim.step(1e-3, model, grads)
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let cpu = Device::flex().autodiff();
    let mut optim = AdamConfig::new().init();
    fit(place(Mlp::load("a.bpk", &cpu), &gpu), &mut optim);
    fit(Mlp::load("b.bpk", &cpu).place_on(&gpu), &mut optim);
    let model = Mlp::load("c.bpk", &cpu).moved_to(&gpu);
    fit(model, &mut optim);
}
