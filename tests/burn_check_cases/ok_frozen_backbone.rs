// A frozen backbone: loaded, frozen with no_grad(), then moved; only the head trains (Burn's doc
// comment on Module::no_grad: partial fine-tuning). A no_grad parameter is not trained.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let backbone = Backbone::load("backbone.bpk", &Device::flex().autodiff()).no_grad().to_device(&gpu);
    let mut head = HeadConfig::new().init(&gpu);
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let features = backbone.forward(batch.images);
        let loss = head.forward(features).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &head);
        assert_eq!(grads.len(), 2);
        head = optim.step(1e-3, head, grads);
    }
    let frozen_later = Backbone::load("backbone.bpk", &Device::flex().autodiff()).to_device(&gpu).no_grad();
    let model = Classifier { backbone: frozen_later, head };
    let grads = GradientsParams::from_grads(model.forward(x()).mean().backward(), &model);
    assert!(grads.len() == 2);
}
