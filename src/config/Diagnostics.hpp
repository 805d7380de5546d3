// Collects every configuration error so that a user sees them all at once.
#pragma once

#include <string>
#include <vector>

#include "config/Config.hpp"

namespace ecluse {

class Diagnostics {
 public:
  /** Records "file:line:col: what"; `what` says what is wrong and how to fix it. */
  void error(const SourceLocation& where, const std::string& what);
  /** An error that has no place in the file (e.g. the file cannot be read). */
  void error(const std::string& what);
  [[nodiscard]] bool empty() const { return messages_.empty() && unlisted_ == 0; }
  /** False once limits::kListedErrors are recorded: callers may then count_unlisted() instead
   * of working out a message and its place. */
  [[nodiscard]] bool listing() const;
  void count_unlisted() { ++unlisted_; }
  /** Every message, in the order of the file (messages without a place first). */
  [[nodiscard]] std::vector<std::string> lines() const;
  /** lines(), one per line. */
  [[nodiscard]] std::string text() const;
  /** Throws ConfigError (ECLUSE_CONFIG_ERROR) with lines(), if there is any message. */
  void raise_if_any() const;
  /** Records "file:line:col: what" as a warning (the logger adds "warning:"): the file is accepted
   * but something it says is not done (or not done as written); `what` says what to do. Warnings of
   * the same `kind` are one line: the first place, then "(and N more like it)". */
  void warning(const SourceLocation& where, const std::string& kind, const std::string& what);
  /** Counts one more warning of `kind` when one is already recorded (or no more kinds are
   * listed) and returns true; false for a new kind. Lets a caller work out the place and text of
   * a warning only for the first of its kind. */
  bool repeated_warning(const std::string& kind);
  /** Every warning, one line each, in the order of the file. */
  [[nodiscard]] std::vector<std::string> warnings() const;

 private:
  struct Message {
    int line, column;
    std::string text;
  };
  void add(Message message);
  struct Warning {
    int line, column;
    std::string kind, text;
    std::size_t more = 0;
  };
  std::vector<Message> messages_;
  std::vector<Warning> warnings_;
  std::size_t unlisted_warnings_ = 0;  // warnings beyond limits::kListedErrors kinds
  std::size_t unlisted_ = 0;           // errors beyond limits::kListedErrors, counted only
};

}  // namespace ecluse
