#include "sweep/model_cache.h"

namespace dtplan::sweep {

core::Result<std::shared_ptr<const graph::Model>> ModelCache::get(const MeshCandidate& candidate) {
  const Key key{candidate.batch, candidate.grad_accum, candidate.checkpoint};
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Entry>& slot = entries_[key];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::call_once(entry->once, [&] {
    graph::ModelOverrides o = overrides_;
    if (candidate.batch) o.batch = candidate.batch;
    if (candidate.grad_accum) o.grad_accum = candidate.grad_accum;
    if (candidate.checkpoint) o.checkpoint = candidate.checkpoint;
    auto model = graph::load_model(file_, o);
    if (!model.ok()) {
      entry->model = model.error();
      return;
    }
    if (model->graph.name().empty()) model->graph.set_name(model->name);
    entry->model = std::make_shared<const graph::Model>(std::move(*model));
  });
  return entry->model;
}

}  // namespace dtplan::sweep
