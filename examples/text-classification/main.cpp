// Text classification: which of four fortune categories (computers, definitions, politics, songs-poems) a fortune
// comes from, learned by a small transformer encoder over a word tokenizer fitted on the training fortunes.
// Trains with the Learner, reports the test accuracy (and the int8-quantized model's), saves model, config and
// vocabulary, then reloads them and classifies a few sentences of its own.
//   text-classification [--epochs N] [--artifact-dir DIR]     (defaults: 6 epochs, /tmp/text-classification)
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>

#include <scorch/data/transforms.h>

#include "common/training.h"
#include "model.h"

using namespace scorch;
using namespace textclass;

namespace {

/// Tokenized fortunes, shuffled (seed 9) and split 80/20 into training and test; the tokenizer is fitted on
/// the training texts only.
struct Split {
  data::DatasetPtr<EncodedFortune> train, test;
  WordTokenizer tokenizer;
};
Split split_corpus(size_t max_tokens) {
  auto corpus = read_categories();
  std::mt19937 generator(9);
  std::shuffle(corpus.begin(), corpus.end(), generator);
  size_t train_size = corpus.size() * 8 / 10;
  std::vector<std::string> train_texts;
  for (size_t i = 0; i < train_size; ++i) train_texts.push_back(corpus[i].text);
  auto tokenizer = WordTokenizer::fit(train_texts);
  std::vector<EncodedFortune> train, test;
  for (size_t i = 0; i < corpus.size(); ++i)
    (i < train_size ? train : test).push_back({tokenizer.encode(corpus[i].text, max_tokens), corpus[i].label});
  return {data::share(data::InMemDataset(std::move(train))), data::share(data::InMemDataset(std::move(test))),
          std::move(tokenizer)};
}

template <Backend B> auto fortune_loader(const data::DatasetPtr<EncodedFortune>& set, bool shuffle) {
  auto builder = data::dataloader_builder(std::make_shared<FortuneBatcher<B>>()).batch_size(32).num_workers(1);
  if (shuffle) builder.shuffle(9);
  return builder.build(set);
}

/// Reloads what training saved and names the category of each sentence.
void classify(const std::string& artifact_dir, const std::vector<std::string>& sentences) {
  auto config = TextClassifierConfig::load(artifact_dir + "/config.json");
  auto tokenizer = WordTokenizer::load(artifact_dir + "/vocabulary.txt");
  if (config.categories != kCategories.size() || config.vocab_size != tokenizer.vocab_size())
    throw ValueError("classify", artifact_dir + "/config.json: " + std::to_string(config.categories) +
                                     " categories and " + std::to_string(config.vocab_size) +
                                     " tokens, but there are " + std::to_string(kCategories.size()) +
                                     " categories and vocabulary.txt gives " + std::to_string(tokenizer.vocab_size()) +
                                     " tokens");
  auto model = config.init<Cpu>().load_file(artifact_dir + "/model", CompactRecorder{}, Cpu::Device{});
  std::vector<EncodedFortune> items;
  for (const auto& sentence : sentences) items.push_back({tokenizer.encode(sentence, config.max_tokens), 0});
  auto probabilities = activation::softmax(model.forward(FortuneBatcher<Cpu>{}.batch(items, {}).ids), 1);
  auto best = probabilities.argmax(1).to_data().to_vector<int64_t>();
  auto values = probabilities.to_data().to_vector<float>();
  for (size_t i = 0; i < sentences.size(); ++i) {
    size_t label = size_t(best[i]);
    std::cout << "  " << kCategories[label] << " (" << int(100 * values[i * kCategories.size() + label] + 0.5)
              << " %): " << sentences[i] << "\n";
  }
}

/// The share of test fortunes model classifies right, in percent.
template <class Model> double accuracy(const Model& model, const data::DatasetPtr<EncodedFortune>& test_set) {
  size_t correct = 0;
  for (size_t begin = 0; begin < test_set->len(); begin += 256) {
    std::vector<EncodedFortune> items;
    for (size_t i = begin; i < std::min(begin + 256, test_set->len()); ++i) items.push_back(*test_set->get(i));
    auto batch = FortuneBatcher<Cpu>{}.batch(items, {});
    auto hits = model.forward(batch.ids).argmax(1).template reshape<1>({-1}).equal(batch.labels);
    correct += size_t(hits.int_().sum().into_scalar().to_double());
  }
  return 100.0 * double(correct) / double(test_set->len());
}

/// The trained model quantized after training (int8 weights per output channel): inputs quantized per batch
/// (dynamic), and fixed from 20 calibration batches of training fortunes (static); their test accuracy and bytes.
void report_quantized(const TextClassifier<Cpu>& model, const data::DatasetPtr<EncodedFortune>& train_set,
                      const data::DatasetPtr<EncodedFortune>& test_set, double f32_accuracy) {
  auto dynamic = quant::quantize(model);
  auto forward = [](const TextClassifier<Cpu>& m, const FortuneBatch<Cpu>& batch) { (void)m.forward(batch.ids); };
  auto calibrated = quant::quantize_with_loader(model, {}, {}, fortune_loader<Cpu>(train_set, false), forward, 20);
  auto f32_bytes = quant::param_bytes(model).first;
  auto [int8_bytes, quantized] = quant::param_bytes(dynamic);
  std::printf("int8 post-training quantization (%zu linear weights; parameters %zu -> %zu bytes):\n", quantized,
              f32_bytes, int8_bytes);
  std::printf("  test accuracy f32 %.2f %%, int8 dynamic %.2f %%, int8 static %.2f %%\n", f32_accuracy,
              accuracy(dynamic, test_set), accuracy(calibrated, test_set));
}

}  // namespace

int main(int argc, char** argv) try {
  auto run = examples::training_run(argc, argv, "text-classification", "6");
  const auto& artifact_dir = run.artifact_dir;
  using B = Autodiff<Cpu>;
  B::seed(9);
  TextClassifierConfig config(0, kCategories.size());
  auto [train_set, test_set, tokenizer] = split_corpus(config.max_tokens);
  config = config.with_vocab_size(tokenizer.vocab_size());
  std::cout << train_set->len() << " training and " << test_set->len() << " test fortunes, " << tokenizer.vocab_size()
            << " tokens\n";

  auto learner = examples::learner_builder(run, true).build(config.init<B>(),
                                                            optim::AdamWConfig().with_weight_decay(0.05).init(), 5e-4);
  auto model = learner.fit(fortune_loader<B>(train_set, true), fortune_loader<Cpu>(test_set, false));
  model.save_file(artifact_dir + "/model", CompactRecorder{});
  config.save(artifact_dir + "/config.json");
  tokenizer.save(artifact_dir + "/vocabulary.txt");

  auto trained = model.valid();
  double f32_accuracy = accuracy(trained, test_set);
  std::cout << "test accuracy: " << f32_accuracy << " % of " << test_set->len()
            << " fortunes (always answering the largest category, definitions, gives 33 %)\n";
  report_quantized(trained, train_set, test_set, f32_accuracy);
  std::cout << "model, config and vocabulary saved to " << artifact_dir << "\nthe reloaded model reads:\n";
  classify(artifact_dir, {"The compiler crashed again when I recompiled the kernel.",
                          "The senator promised lower taxes before the election.",
                          "Oh, my darling, sing me a song of the sea and the moon.",
                          "Bureaucrat, n.: a person who cuts red tape sideways."});
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}
