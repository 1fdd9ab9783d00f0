# Reference spending values and normal z-boundaries of group-sequential designs, from rpact.
#
# Run: Rscript tests/reference/make_group_sequential_rpact.R  (rpact 3.3.4 here; about 2 s)
# writes group_sequential_rpact.json beside this script.  The calls:
#   getDesignGroupSequential(kMax = K, alpha = 0.025, sided = 1,
#                            typeOfDesign = "asOF" or "asP", informationRates = (1:K) / K)
# and the fields alphaSpent (cumulative alpha spent at each look) and criticalValues
# (one-sided z-boundaries of the normal design).
library(rpact)
library(jsonlite)
out <- list()
for (tod in c("asOF", "asP")) {
  for (K in c(2, 3, 4)) {
    d <- getDesignGroupSequential(kMax = K, alpha = 0.025, sided = 1, typeOfDesign = tod,
                                  informationRates = (1:K) / K)
    out[[length(out) + 1]] <- list(typeOfDesign = tod, kMax = K, alpha = 0.025,
                                   informationRates = (1:K) / K,
                                   alphaSpent = d$alphaSpent, criticalValues = d$criticalValues,
                                   rpact = as.character(packageVersion("rpact")))
  }
}
path <- file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))),
                  "group_sequential_rpact.json")
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), path)
