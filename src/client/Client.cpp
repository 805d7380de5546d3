// Client-side checks and block description.
#include "client/Client.hpp"

#include <algorithm>
#include <utility>

#include "core/RunFailure.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

std::vector<std::size_t> block_bytes_per_iteration(const Config& config,
                                                   const Parameters& parameters) {
  std::vector<std::size_t> bytes;
  for (const Variable& v : config.variables) {
    if (!v.enabled) continue;
    const Layout& layout = *config.find_layout(v.layout);
    std::uint64_t block = 0;  // a layout whose size is set later: nothing to pre-fault for it
    if (const auto shape = layout_now(config, layout, parameters).shape) {
      block = shape->elements * static_cast<std::uint64_t>(data_type_size(layout.type));
    }
    bytes.insert(bytes.end(), static_cast<std::size_t>(config.architecture.domains),
                 static_cast<std::size_t>(block));
  }
  return bytes;
}

Client::Client(const Config& config, Parameters& parameters, Transport& transport, int source,
               Accounting& accounting)
    : config_(config),
      parameters_(parameters),
      transport_(transport),
      accounting_(accounting),
      source_(source) {
  refresh_shapes();
  check_capacity();
}

// With the parameters' values at initialize; a later parameter_set that makes a block too big
// is refused by the transport at that write. A block of a Damaris layout naming parameters may
// be a placeholder at initialize (Damaris checks nothing before the writes): it is not refused
// here, its writes are, and it counts in the iteration's need (warned).
void Client::check_capacity() const {
  std::vector<std::size_t> iteration;  // every block of every variable, every domain
  for (const Variable& v : config_.variables) {
    if (!v.enabled) continue;
    const Layout& layout = *config_.find_layout(v.layout);
    const auto shape = shapes_.find(&layout);
    if (shape == shapes_.end()) continue;  // size set later by parameter_set: checked then
    const std::size_t bytes = shape->second.elements * data_type_size(layout.type);
    transport_.check_capacity(v, bytes);  // a Damaris layout naming parameters: warned
    iteration.insert(iteration.end(), static_cast<std::size_t>(config_.architecture.domains),
                     bytes);
  }
  transport_.check_iteration_capacity(iteration);
}

const Variable& Client::variable(std::string_view name) const {
  return config_.declared_variable(name);
}

void Client::check_block(const Variable& v, int block) const {
  const int domains = config_.architecture.domains;
  if (block >= 0 && block < domains) return;
  throw Error(ECLUSE_INVALID_BLOCK, "block " + std::to_string(block) + " of variable '" + v.name +
                                        "' is out of range: <domains count=\"" +
                                        std::to_string(domains) + "\"/> allows blocks 0 to " +
                                        std::to_string(domains - 1) + ".");
}

const LayoutShape& Client::shape(const Variable& v) const {
  const Layout* layout = config_.find_layout(v.layout);
  if (const auto it = shapes_.find(layout); it != shapes_.end()) return it->second;
  throw Error(ECLUSE_INVALID_DIMENSIONS, "variable '" + v.name + "': " + unset_.at(layout));
}

// A layout of a Damaris file may be 0 in a dimension until parameter_set gives its size (the
// configuration warned): it has no shape until then, and a write of its variables is refused.
void Client::refresh_shapes() {
  std::map<const Layout*, LayoutShape> fresh;
  std::map<const Layout*, std::string> unset;
  for (const Layout& layout : config_.layouts) {
    LayoutNow now = layout_now(config_, layout, parameters_);
    if (now.shape) {
      fresh[&layout] = std::move(*now.shape);
    } else {
      unset[&layout] = now.waiting + (now.zero ? "; give its parameters positive values with "
                                                 "ecluse_parameter_set before writing it."
                                               : " Give its parameters values that make it valid "
                                                 "with ecluse_parameter_set before writing it.");
    }
  }
  shapes_ = std::move(fresh);
  unset_ = std::move(unset);
  blocks_.clear();
}

std::pair<DataType, std::vector<std::int64_t>> Client::block_shape(std::string_view name) const {
  const Variable& v = variable(name);
  const Layout* layout = config_.find_layout(v.layout);
  const std::vector<std::uint64_t>& dims = shape(v).dims;
  return {layout->type, std::vector<std::int64_t>(dims.begin(), dims.end())};
}

const std::string& Client::layout_of(std::string_view name) const {
  return variable(name).layout;
}

std::size_t Client::rank_of(std::string_view name) const {
  return config_.find_layout(variable(name).layout)->dimensions.size();
}

// Empty when ecluse_set_position was never called for the block: stores read it as the origin,
// and a collective store refuses several such blocks (they would overwrite each other).
std::vector<std::int64_t> Client::position(const Variable& v, int block) const {
  auto it = positions_.find({&v, block});
  if (it != positions_.end()) return it->second;
  return {};
}

// Descriptions are kept per (variable, block) so that a steady-state write allocates nothing;
// they are rebuilt when a position or a parameter changes.
BlockData& Client::describe(const Variable& v, int block, const void* data) {
  auto it = blocks_.find({&v, block});
  if (it == blocks_.end()) {
    const Layout& layout = *config_.find_layout(v.layout);
    const LayoutShape& s = shape(v);  // throws while a Damaris layout's size is unset
    it = blocks_
             .try_emplace({&v, block},
                          BlockData{&v, layout.type, 0, source_, block, s.dims, s.ghost_lo,
                                    s.ghost_hi, s.global, position(v, block), nullptr})
             .first;
  }
  BlockData& b = it->second;
  b.iteration = iteration_;
  b.data = data;
  return b;
}

std::size_t Client::bytes_of(const BlockData& block) const {
  std::size_t elements = 1;
  for (std::uint64_t n : block.dims) elements *= n;
  return elements * data_type_size(block.type);
}

// A second block for the same (variable, block) in one iteration has no place in the files:
// it is refused rather than left to a store to overwrite or reject.
bool Client::handed_over_now(const Variable& v, int block) const {
  const auto it = handed_over_.find({&v, block});
  return it != handed_over_.end() && it->second == iteration_;
}

bool Client::wrote_unended() const {
  return std::any_of(handed_over_.begin(), handed_over_.end(),
                     [this](const auto& entry) { return entry.second == iteration_; });
}

void Client::check_not_written(const Variable& v, int block) const {
  if (!handed_over_now(v, block)) return;
  throw Error(ECLUSE_ALREADY_WRITTEN,
              "block " + std::to_string(block) + " of variable '" + v.name +
                  "' was already written in iteration " + std::to_string(iteration_) +
                  "; call ecluse_end_iteration between two writes of the same block.");
}

// The room of an allocated block is Ecluse's: a write of the same block beside it would hand
// the block over twice (two datasets of one name in the servers' files).
void Client::check_not_allocated(const Variable& v, int block) const {
  if (!transport_.allocated_now(v, block) && !scratch_.live({&v, block})) return;
  throw Error(ECLUSE_ARGUMENT_ERROR,
              "write of block " + std::to_string(block) + " of variable '" + v.name +
                  "': the block is allocated (ecluse_alloc) and not committed; fill it and "
                  "commit it, or clear it before writing the block.");
}

void Client::mark_handed_over(const Variable& v, int block) {
  handed_over_[{&v, block}] = iteration_;
  forget_refusal(v, block);
}

void Client::forget_refusal(const Variable& v, int block) {
  if (!refused_now_.empty()) refused_now_.erase({&v, block});
}

template <class Call>
auto Client::refusing(const Variable& v, int block, Call call) -> decltype(call()) {
  try {
    return call();
  } catch (const Error& e) {
    // A second write of a block in one iteration: its data goes nowhere (the first is stored),
    // and a client that skipped an end_iteration writes every later iteration under the
    // number before, so it counts. Another error of a block handed over (a NULL pointer), a
    // commit of nothing: the block's data is stored or there was none.
    if (e.status() == ECLUSE_ALREADY_WRITTEN) {
      ++refused_writes_;
    } else if (e.status() != ECLUSE_BLOCK_NOT_FOUND && !handed_over_now(v, block)) {
      refused_now_.insert({&v, block});
    }
    throw;
  }
}

// A server gone (or a client a server needed): nothing handed over from now on can be stored,
// and each call says so, as the first one did, rather than return OK for data that goes nowhere.
void Client::check_peers() const {
  if (!lost_a_peer()) return;
  throw Error(ECLUSE_CHANNEL_ERROR, "an earlier call found that " + lost_peer_cause() +
                                        " Nothing handed over since is stored: stop and "
                                        "finalize (the run report says what was lost).");
}

// A variable or block the configuration does not declare: the data has no place to go. The
// program is told; it is counted too, as a write that a program not checking would lose.
const Variable& Client::accepted(std::string_view name, int block) {
  check_peers();
  try {
    const Variable& v = variable(name);
    check_block(v, block);
    return v;
  } catch (const Error&) {
    ++refused_writes_;
    throw;
  }
}

void Client::write(std::string_view name, int block, const void* data, std::uint64_t held) {
  PhaseScope scope(accounting_, Phase::Write);
  const Variable& v = accepted(name, block);
  refusing(v, block, [&] { hand_over(v, block, data, nullptr, held); });
}

void Client::write_strided(std::string_view name, int block, const StridedSource& source) {
  PhaseScope scope(accounting_, Phase::Write);
  const Variable& v = accepted(name, block);
  refusing(v, block, [&] { hand_over(v, block, source.data(), &source); });
}

// Data of a known size (ecluse_write_block_sized, module damaris's arrays): a block larger than
// it would be read past its end, another array's values in the files or a crash.
void Client::check_holds(const Variable& v, int block, std::uint64_t held) {
  if (held == kUnknownSize) return;
  const BlockData& b = describe(v, block, nullptr);
  const std::size_t bytes = bytes_of(b);
  if (held >= bytes) return;
  const std::string which = block == 0 ? "" : "block " + std::to_string(block) + " of ";
  throw Error(ECLUSE_ARGUMENT_ERROR,
              "write of " + which + "variable '" + v.name + "': the data passed holds " +
                  std::to_string(held) + " bytes but the block needs " + std::to_string(bytes) +
                  " bytes (" + std::to_string(bytes / data_type_size(b.type)) + " element(s) of " +
                  std::string(data_type_name(b.type)) +
                  ", ghosts included): the write would read past the data's end. Pass data of "
                  "the block's size and type, or fix the layout's dimensions or type.");
}

void Client::hand_over(const Variable& v, int block, const void* data, const StridedSource* strided,
                       std::uint64_t held) {
  if (!data && !(strided && strided->elements() == 0)) {  // an empty array reads nothing
    // An empty partition's array is NULL: a dimension at 0 is the cause to name (describe says).
    describe(v, block, nullptr);
    throw Error(ECLUSE_ARGUMENT_ERROR, "write of variable '" + v.name + "': data is NULL.");
  }
  check_not_written(v, block);
  check_not_allocated(v, block);
  check_holds(v, block, held);
  if (!v.enabled || written_once_.count({&v, block})) return mark_handed_over(v, block);
  if (!wanted(v)) {
    ++unwanted_writes_;
    return mark_handed_over(v, block);
  }
  const BlockData& b = describe(v, block, data);
  if (strided) strided->check_fits(b);
  const std::size_t bytes = bytes_of(b);
  const bool handed_over = transport_.put(b, bytes, strided);  // false: dropped (policy skip)
  mark_handed_over(v, block);
  if (!handed_over) return;  // a constant variable dropped is written at its next write
  accounting_.add_bytes(bytes);
  if (!v.time_varying) written_now_.insert({&v, block});
}

void* Client::alloc(std::string_view name, int block) {
  PhaseScope scope(accounting_, Phase::Write);
  const Variable& v = accepted(name, block);
  return refusing(v, block, [&] {
    check_not_written(v, block);
    const BlockData& b = describe(v, block, nullptr);
    // A block that will not be handed over takes no room in the buffer (a store's frequency).
    void* room = handed_over_at_commit(v, block) ? transport_.alloc(b, bytes_of(b))
                                                 : scratch_.take({&v, block}, bytes_of(b));
    // Not handed over yet, but no longer refused: an allocation never committed is counted
    // apart (client.dropped_allocations).
    forget_refusal(v, block);
    return room;
  });
}

void Client::commit(std::string_view name, int block) {
  PhaseScope scope(accounting_, Phase::Write);
  check_peers();
  const Variable& v = variable(name);
  check_block(v, block);
  if (scratch_.release({&v, block})) {  // its alloc knew it would not be handed over
    if (v.enabled && !written_once_.count({&v, block})) ++unwanted_writes_;
    mark_handed_over(v, block);
    return;
  }
  // A commit after a commit finds nothing allocated (the transport says so): alloc refuses a
  // second block of the iteration.
  if (!v.enabled || written_once_.count({&v, block})) {
    transport_.clear(v, block);
    mark_handed_over(v, block);
    return;
  }
  if (handed_over_now(v, block) && !transport_.allocated_now(v, block)) {
    throw Error(ECLUSE_BLOCK_NOT_FOUND,
                "commit of block " + std::to_string(block) + " of variable '" + v.name +
                    "': the block was already handed over in iteration " +
                    std::to_string(iteration_) +
                    " (committed or written); its data is on its way to be stored. Commit a "
                    "block once per iteration; alloc it again after ecluse_end_iteration.");
  }
  refusing(v, block, [&] { transport_.commit(v, block); });
  mark_handed_over(v, block);
  if (auto it = blocks_.find({&v, block}); it != blocks_.end()) {
    accounting_.add_bytes(bytes_of(it->second));
  }
  if (!v.time_varying) written_now_.insert({&v, block});
}

void Client::clear(std::string_view name, int block) {
  PhaseScope scope(accounting_, Phase::Write);
  const Variable& v = variable(name);
  check_block(v, block);
  // Damaris programs clear after commit (the client drops its reference): a block handed over
  // in this iteration is Ecluse's, and time partitioning would otherwise drop it.
  if (handed_over_now(v, block)) return;
  if (scratch_.release({&v, block})) return;
  transport_.clear(v, block);
}

void Client::set_position(std::string_view name, int block, std::span<const std::int64_t> position,
                          bool layout_order) {
  const Variable& v = variable(name);
  check_block(v, block);
  for (std::size_t d = 0; d < position.size(); ++d) {
    if (position[d] >= 0) continue;
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "position of variable '" + v.name + "': offset " + std::to_string(position[d]) +
                    " in dimension " + std::to_string(d) +
                    " is negative; a position is the global index (from 0) of the block's first "
                    "interior cell.");
  }
  std::vector<std::int64_t> p(position.begin(), position.end());
  if (layout_order && config_.find_layout(v.layout)->fortran) std::reverse(p.begin(), p.end());
  positions_[{&v, block}] = std::move(p);
  blocks_.erase({&v, block});
}

void Client::parameter_set(std::string_view name, const void* buffer, std::size_t size) {
  std::vector<unsigned char> old = parameters_.raw(name);
  parameters_.set(name, buffer, size);
  try {
    refresh_shapes();
  } catch (const Error& e) {
    parameters_.restore(name, std::move(old));
    throw Error(e.status(), "parameter '" + std::string(name) +
                                "' was not changed: the new value would break " + e.what());
  }
  transport_.iteration_blocks_changed(block_bytes_per_iteration(config_, parameters_));
}

bool Client::wanted(const Variable& variable) {
  const auto index = static_cast<std::size_t>(&variable - config_.variables.data());
  if (wanted_.size() != config_.variables.size()) wanted_.assign(config_.variables.size(), -1);
  signed char& known = wanted_[index];
  if (known < 0) known = block_wanted(config_, variable, iteration_) ? 1 : 0;
  return known != 0;
}

bool Client::handed_over_at_commit(const Variable& v, int block) {
  return v.enabled && !written_once_.count({&v, block}) && wanted(v);
}

void Client::end_iteration() {
  PhaseScope scope(accounting_, Phase::Write);
  check_peers();
  std::fill(wanted_.begin(), wanted_.end(), static_cast<signed char>(-1));
  const int ended = iteration_++;
  const auto constants = std::exchange(written_now_, {});
  refused_writes_ += refused_now_.size();  // not handed over in the iteration they belong to
  refused_now_.clear();
  try {
    transport_.end_iteration(ended);  // TP: stores it, and throws its store failure
  } catch (...) {
    // A failed iteration is still one the report counts; its constant variables were not
    // stored (TP), so they are written again at their next write.
    accounting_.end_iteration(ended);
    throw;
  }
  written_once_.insert(constants.begin(), constants.end());
  accounting_.end_iteration(ended);
  try {
    transport_.raise_store_failures();  // DC, DN: an earlier iteration's, found by the server
  } catch (const Error&) {
    // The failed iteration is not known here: every constant variable is written again at its
    // next write (one stored twice beats one lost for the run).
    written_once_.clear();
    throw;
  }
}

}  // namespace ecluse
