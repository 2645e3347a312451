#include <iostream>

#include "cli/app.h"

int main(int argc, char** argv) { return perfhound::cli::run_app(argc, argv, std::cout, std::cerr); }
