// mlfma2d_bench's command line (bench/bench.hpp).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::bench {

namespace {

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> items = split(text, ',');
  for (const std::string& item : items)
    if (item.empty())
      throw InvalidInput("'" + text + "': a comma-separated list without empty items");
  return items;
}

void usage() {
  std::printf(
      "usage: mlfma2d_bench [--backend NAME] [--threads T] [--repeat K] [--rows LIST]\n"
      "                     [--json FILE] [--ct CT] [--levels I] [--sample S]\n"
      "                     [--kernel-variants] [--kernel-n N] [--kernel-ct LIST]\n"
      "                     [--auto-sets LIST] [--auto-n LIST] [--auto-eps X]\n"
      "                     [--auto-backends LIST] [--auto-trees LIST] [--auto-offsets LIST]\n"
      "                     [--max-pairs P] [--no-placement] [--densities-n N]\n"
      "  rows: comma list of p,a,b,c,d,e,f,g,h,i or all (default; f only on >= 100 GiB of "
      "memory)\n");
}

// --rows LIST: a..i, p or all.
void read_rows(const std::string& list, Args* a) {
  std::stringstream s(list);
  std::string item;
  a->all = false;
  while (std::getline(s, item, ',')) {
    if (item == "all") {
      a->all = true;
    } else if (item.size() == 1 && ((item[0] >= 'a' && item[0] <= 'i') || item[0] == 'p')) {
      a->rows.insert(item);
    } else {
      throw InvalidInput("--rows: unknown row '" + item + "' (a..i, p or all)");
    }
  }
}

// The next argument, the value of option k.
using Value = std::function<std::string()>;

// The options of rows d, h and i (the kernel rates, the defaults against the scan, the densities);
// false when `k`
// is none of them.
bool read_row_option(const std::string& k, const Value& value, Args* a) {
  if (k == "--kernel-n") {
    a->kernel_n = static_cast<std::size_t>(std::stod(value()));
  } else if (k == "--kernel-ct") {
    std::stringstream s(value());
    std::string item;
    a->kernel_ct.clear();
    while (std::getline(s, item, ',')) a->kernel_ct.push_back(std::stoi(item));
  } else if (k == "--auto-sets") {
    a->auto_sets = comma_list(value());
  } else if (k == "--auto-n") {
    a->auto_n.clear();
    for (const std::string& x : comma_list(value()))
      a->auto_n.push_back(static_cast<std::size_t>(std::stod(x)));
  } else if (k == "--auto-eps") {
    a->auto_eps = std::stod(value());
  } else if (k == "--auto-backends") {
    a->auto_backends = comma_list(value());
  } else if (k == "--auto-trees") {
    a->auto_trees = comma_list(value());
  } else if (k == "--auto-offsets") {
    a->auto_offsets.clear();
    for (const std::string& x : comma_list(value())) a->auto_offsets.push_back(std::stoi(x));
  } else if (k == "--max-pairs") {
    a->max_pairs = std::stod(value());
  } else if (k == "--densities-n") {
    a->densities_n = static_cast<std::size_t>(std::stod(value()));
  } else {
    return false;
  }
  return true;
}

// The options every row reads; false when `k` is none of them.
bool read_run_option(const std::string& k, const Value& value, Args* a) {
  if (k == "--backend") {
    a->backend = value();
  } else if (k == "--threads") {
    a->threads = std::stoi(value());
  } else if (k == "--repeat") {
    a->repeat = std::max(1, std::stoi(value()));
  } else if (k == "--rows") {
    read_rows(value(), a);
  } else if (k == "--json") {
    a->json_path = value();
  } else if (k == "--ct") {
    a->ct = std::stoi(value());
  } else if (k == "--levels") {
    a->level_offset = std::stoi(value());
  } else if (k == "--sample") {
    a->sample = std::stoul(value());
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool parse_args(int argc, char** argv, Args* a, int* status) {
  a->backend = near_field_backend_available("shared") ? "shared" : "cpu";
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string k = argv[i];
      const Value value = [&]() -> std::string {
        if (i + 1 >= argc) throw InvalidInput(k + " needs a value");
        return argv[++i];
      };
      if (k == "--kernel-variants") {
        a->variants = true;
      } else if (k == "--no-placement") {
        a->place_threads = false;
      } else if (k == "--help" || k == "-h") {
        usage();
        *status = 0;
        return false;
      } else if (!read_run_option(k, value, a) && !read_row_option(k, value, a)) {
        throw InvalidInput("unknown option " + k);
      }
    }
    std::string why;
    if (!near_field_backend_available(a->backend, &why)) throw BackendUnavailable(why);
    if (a->all && host_memory_gib() >= 100) a->rows.insert("f");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlfma2d_bench: %s\n", e.what());
    usage();
    *status = 2;
    return false;
  }
  return true;
}

bool wants(const Args& a, const std::string& id) {
  if (a.rows.count(id)) return true;
  return a.all && id != "f";
}

}  // namespace mlfma2d::bench
