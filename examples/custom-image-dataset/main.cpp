// A custom image dataset: the symbolic icons Debian's adwaita-icon-theme ships, written into an image folder (one
// sub-folder per category), read back by ImageFolderDataset, mapped to tensors and batched; a small CNN learns
// which category an icon belongs to (actions, devices, emotes or status) and is tested on icons it never saw.
//   custom-image-dataset [--epochs N] [--artifact-dir DIR]     (defaults: 25 epochs, /tmp/custom-image-dataset)
#include <iostream>

#include <scorch/data/transforms.h>

#include "common/training.h"
#include "model.h"

using namespace scorch;
using namespace icons;

namespace {

// [book:icon-dataset]
/// The image folder under root as icon items: decoded on demand, mapped to [1, 32, 32] coverage.
data::DatasetPtr<IconItem> icon_dataset(const std::string& root) {
  auto folder = data::ImageFolderDataset::new_classification_with(root, kCategories);
  return data::share(data::map(std::move(folder), to_icon_item));
}

/// Training batches are shuffled and their images shifted by up to 2 pixels; one worker (IconBatcher's generator).
template <Backend B> auto icon_loader(const data::DatasetPtr<IconItem>& set, bool training) {
  auto builder =
      data::dataloader_builder(std::make_shared<IconBatcher<B>>(training ? 2 : 0)).batch_size(64).num_workers(1);
  if (training) builder.shuffle(4);
  return builder.build(set);
}
// [/book:icon-dataset]

/// The test images the model classifies correctly, per category.
void report_test(const IconNet<Cpu>& model, const data::DatasetPtr<IconItem>& test_set) {
  std::vector<size_t> correct(kCategories.size()), total(kCategories.size());
  std::vector<IconItem> items;
  for (size_t i = 0; i < test_set->len(); ++i) items.push_back(*test_set->get(i));
  auto batch = IconBatcher<Cpu>{}.batch(items, {});
  auto predicted = model.forward(batch.images).argmax(1).to_data().to_vector<int64_t>();
  for (size_t i = 0; i < items.size(); ++i) {
    ++total[items[i].label];
    correct[items[i].label] += size_t(predicted[i]) == items[i].label;
  }
  size_t all = 0;
  for (size_t c = 0; c < kCategories.size(); ++c) {
    all += correct[c];
    std::cout << "  " << kCategories[c] << ": " << correct[c] << " of " << total[c] << "\n";
  }
  std::cout << "test accuracy: " << 100.0 * double(all) / double(items.size()) << " % of " << items.size()
            << " drawings of unseen icons\n";
}

}  // namespace

int main(int argc, char** argv) try {
  auto run = examples::training_run(argc, argv, "custom-image-dataset", "25");
  const auto& artifact_dir = run.artifact_dir;
  auto folders = build_icon_folder(artifact_dir + "/icons");
  std::cout << "image folder " << artifact_dir << "/icons: " << folders.train_images << " training and "
            << folders.test_images << " test images\n";
  auto train_set = icon_dataset(folders.train), test_set = icon_dataset(folders.test);

  using B = Autodiff<Cpu>;
  B::seed(4);
  size_t batches = std::max<size_t>((train_set->len() + 63) / 64, 1);
  auto learner = examples::learner_builder(run, true).build(
      IconNetConfig(kCategories.size()).init<B>(), optim::AdamWConfig().init(),
      optim::CosineAnnealingLrSchedulerConfig(2e-3, std::max<size_t>(run.epochs, 1) * batches).init());
  auto model = learner.fit(icon_loader<B>(train_set, true), icon_loader<Cpu>(test_set, false));
  model.save_file(artifact_dir + "/model", CompactRecorder{});
  report_test(model.valid(), test_set);
  std::cout << "model saved to " << artifact_dir << "/model.mpk.gz\n";
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}
