// Fine-tuning with the Learner from a record: built and loaded on the device it trains on.
pub fn finetune(config: Config, device: Device) {
    let device = device.autodiff();
    let record = load_pretrained();
    let model = config.model.init(&device).load_record(record);
    let training = SupervisedTraining::new("runs/one", train_loader, valid_loader).num_epochs(2);
    let result = training.launch(Learner::new(model, AdamConfig::new().init(), 1e-4));
    let model_valid = result.model.valid();
    evaluate(model_valid);
}
