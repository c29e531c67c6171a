// A crate whose two modules both have a `run`: infer::run only predicts, train::run trains.
mod infer;
mod train;

use crate::train::run;

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = Mlp::load("weights.bpk", &Device::flex().autodiff());
    infer::run(model.clone().to_device(&gpu));
    train::run(model.clone().fork(&gpu));
    run(model.to_device(&gpu)); //~ moved-then-trained
}
