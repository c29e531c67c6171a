// Two models on two devices: the encoder is forked (fine), the decoder moved with to_device.
fn main() {
    let gpu0 = Device::cuda(0).autodiff();
    let gpu1 = Device::cuda(1).autodiff();
    let (encoder, decoder) = load_pretrained(&Device::flex().autodiff());
    let encoder = encoder.fork(&gpu0);
    let decoder = decoder.to_device(&gpu1); //~ moved-then-trained
    let mut enc_optim = AdamConfig::new().init();
    let mut dec_optim = AdamConfig::new().init();
    let hidden = encoder.forward(x).to_device(&gpu1);
    let loss = decoder.forward(hidden).mean();
    let grads = loss.backward();
    let enc_grads = GradientsParams::from_grads(grads.clone(), &encoder);
    let dec_grads = GradientsParams::from_grads(grads, &decoder);
    assert_eq!(enc_grads.len() + dec_grads.len(), 8);
    let _encoder = enc_optim.step(1e-3, encoder, enc_grads);
    let _decoder = dec_optim.step(1e-3, decoder, dec_grads);
}
