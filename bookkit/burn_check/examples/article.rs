// The article's program (Burn 0.22.1): `train` and `initialized` are quoted from the article;
// `main`, which runs one of the seven methods per process, is this book's, written from the
// article's table of methods and their printed labels. The `use` lines are left out, as in the article.

fn train(label: &str, mut model: Linear, device: &Device) {
  device.seed(1);
  let x = Tensor::<2>::random([32, 4], Distribution::Uniform(-1.0, 1.0), device);
  let y = x.clone().sum_dim(1);
  let mut optim = AdamConfig::new().init();
  print!("{label:<26} require_grad {:<5} loss(grads):", model.weight.is_require_grad());
  for _ in 0..5 {
    let loss = MseLoss::new().forward(model.forward(x.clone()), y.clone(), Reduction::Mean);
    let value: f32 = loss.clone().into_scalar();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    print!(" {value:.4}({})", grads.len());
    std::io::stdout().flush().unwrap();
    model = optim.step(1e-1, model, grads);
  }
  println!();
}

fn initialized(device: &Device) -> Linear {
  let model = LinearConfig::new(4, 1).init(device);
  let _ = model.weight.val(); // e.g. loaded from a file, printed, or used once
  let _ = model.bias.as_ref().unwrap().val();
  model
}

fn main() {
  let metal = Device::metal(DeviceKind::DefaultDevice).autodiff();
  let flex = Device::flex();
  let method = std::env::args().nth(1).unwrap_or_default();
  match method.as_str() {
    "direct" => train("built on the GPU", initialized(&metal), &metal),
    "ad-to_device" => train("flex.autodiff -> to_device", initialized(&flex.autodiff()).to_device(&metal), &metal),
    "plain-to_device" => train("flex -> to_device", initialized(&flex).to_device(&metal), &metal),
    "lazy-to_device" => train("lazy -> to_device", LinearConfig::new(4, 1).init(&flex.autodiff()).to_device(&metal), &metal),
    "ad-fork" => train("flex.autodiff -> fork", initialized(&flex.autodiff()).fork(&metal), &metal),
    "plain-fork" => train("flex -> fork", initialized(&flex).fork(&metal), &metal),
    "plain-to_device-train" => train("flex -> to_device.train()", initialized(&flex).to_device(&metal).train(), &metal),
    _ => eprintln!("name one of the seven methods"),
  }
}
