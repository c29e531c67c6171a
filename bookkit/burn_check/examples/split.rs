// Chapter 11's split model in Burn's words (this book's sketch, not compiled): the first layer on the
// CPU, the second on the GPU. Only the activation moves, inside forward, and each step moves it
// again; the gradient comes back through the move to the first layer. Nothing here is flagged.
#[derive(Module, Debug)]
pub struct Split {
    first: Linear,
    second: Linear,
}

impl Split {
    pub fn new(cpu: &Device, gpu: &Device) -> Self {
        Self {
            first: LinearConfig::new(4, 3).init(cpu),
            second: LinearConfig::new(3, 1).init(gpu),
        }
    }

    pub fn forward(&self, x: Tensor<2>, gpu: &Device) -> Tensor<2> {
        let hidden = self.first.forward(x);
        self.second.forward(hidden.to_device(gpu))
    }
}

fn main() {
    let cpu = Device::flex().autodiff();
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    cpu.seed(1);
    let x = Tensor::<2>::random([32, 4], Distribution::Uniform(-1.0, 1.0), &cpu);
    let y = x.clone().sum_dim(1).to_device(&gpu);
    let mut model = Split::new(&cpu, &gpu);
    let mut optim = AdamConfig::new().init();
    for step in 0..5 {
        let loss = MseLoss::new().forward(model.forward(x.clone(), &gpu), y.clone(), Reduction::Mean);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 4, "step {step}: gradients missing");
        model = optim.step(1e-1, model, grads);
    }
}
