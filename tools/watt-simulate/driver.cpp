// Runs policies of the WATT authors' simulator (WATT-Simulate, linked from
// its own sources) over one trace at several buffer sizes and prints, per
// run, the misses, the page writes (dirty evictions and the dirty pages
// left at the end) and the seconds the run took.
//
// Usage: driver TRACE.csv SIZE[,SIZE...] [ALGO[,ALGO...]]
// ALGO names the runs to make (lru, cf_lru50, lru_wsr, watt, watt_z1;
// default: all).
// TRACE.csv is the simulator's own format: a header `pages,is_write`, then
// one `page,true|false` line per request, pages numbered densely from 0.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "algos/Generators.hpp"

static std::vector<Access> read_trace(const char* path) {
    std::ifstream in(path);
    std::string line;
    std::vector<Access> data;
    if (!std::getline(in, line) || line != "pages,is_write") {
        std::cerr << path << ": expected the header 'pages,is_write'\n";
        std::exit(2);
    }
    int pos = 0;
    while (std::getline(in, line)) {
        Access a;
        auto comma = line.find(',');
        a.pid = std::stoul(line.substr(0, comma));
        a.write = line.find("rue", comma) != std::string::npos;
        a.pos = pos++;
        data.push_back(a);
    }
    return data;
}

static std::vector<std::string> wanted;

// The pieces of a comma-separated list.
static std::vector<std::string> split(const char* list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string s; std::getline(in, s, ',');) out.push_back(s);
    return out;
}

template <class Make>
static void run(const char* name, Make make, const std::vector<Access>& data, RamSize size) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) return;
    auto strategy = make();
    auto t0 = std::chrono::steady_clock::now();
    auto [misses, writes] = strategy.evaluateOne(data, size);
    std::chrono::duration<double> s = std::chrono::steady_clock::now() - t0;
    std::cout << name << "," << size << "," << data.size() << "," << misses << "," << writes << ","
              << s.count() << "\n";
}

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::cerr << "usage: " << argv[0] << " TRACE.csv SIZE[,SIZE...] [ALGO[,ALGO...]]\n";
        return 2;
    }
    if (argc == 4) wanted = split(argv[3]);
    auto data = read_trace(argv[1]);
    std::vector<RamSize> sizes;
    for (const std::string& s : split(argv[2])) sizes.push_back(std::stoul(s));
    std::cout << "algo,ram,requests,misses,writes,seconds\n";
    for (RamSize size : sizes) {
        run("lru", LRU_Generator(), data, size);
        run("cf_lru50", CfLRUGenerator(50), data, size);
        run("lru_wsr", LRU_WSR_Generator(), data, size);
        // The configuration the simulator names WATT: KR 8, KW 4, 4 epochs
        // per buffer, 8 sampled, one evicted, writes as accesses, write
        // cost 1, first value 0.1, the max of the estimates, no history
        // outside the buffer.
        run("watt", WATT_RANDOMHeap_N_EVICT_HISTORY_Generator(8, 4, 4, 8, 1, true, 1, 0.1, mod_max, 0, false),
            data, size);
        // The same, keeping the histories of one buffer's worth of evicted
        // pages (Z = 1).
        run("watt_z1", WATT_RANDOMHeap_N_EVICT_HISTORY_Generator(8, 4, 4, 8, 1, true, 1, 0.1, mod_max, 1, false),
            data, size);
    }
}
