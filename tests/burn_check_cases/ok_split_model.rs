// Chapter 11's split model: activations move between devices inside forward; the layers stay put.
#[derive(Module, Debug)]
pub struct Split {
    first: Linear,
    second: Linear,
}

impl Split {
    pub fn new(cpu: &Device, gpu: &Device) -> Self {
        Self { first: LinearConfig::new(4, 8).init(cpu), second: LinearConfig::new(8, 1).init(gpu) }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let hidden = self.first.forward(x);
        let hidden = hidden.to_device(&self.second.weight.device());
        self.second.forward(hidden)
    }
}

fn main() {
    let cpu = Device::flex().autodiff();
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = Split::new(&cpu, &gpu);
    let mut optim = AdamConfig::new().init();
    for _ in 0..5 {
        let loss = model.forward(x.clone()).to_device(&gpu).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-2, model, grads);
    }
}
