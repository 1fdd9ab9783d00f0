# Reference values for the survival tests: R's survival package on grouped times.
# Run: Rscript tests/reference/make_survival.R   (writes tests/reference/survival_values.json)
# Does not use dpinfer.  The life tables below are the ones tests/inference/survival/ build
# patients from; every patient's time is set to the end of its interval (the grouped data).
library(survival)
library(jsonlite)

breaks <- c(2, 4, 6, 8, 10)
# events and censorings per interval, arm A then arm B; n_A = 60, n_B = 70
tables <- list(
  A = list(events = c(8, 6, 7, 5, 4), censored = c(2, 3, 1, 4, 2), n = 60),
  B = list(events = c(14, 11, 9, 6, 5), censored = c(1, 2, 3, 2, 3), n = 70)
)
rows <- do.call(rbind, lapply(names(tables), function(g) {
  tb <- tables[[g]]
  out <- data.frame(time = c(rep(breaks, tb$events), rep(breaks, tb$censored)),
                    status = c(rep(1, sum(tb$events)), rep(0, sum(tb$censored))), group = g)
  left <- tb$n - sum(tb$events) - sum(tb$censored)
  rbind(out, data.frame(time = rep(max(breaks), left), status = rep(0, left), group = rep(g, left)))
}))
sd <- survdiff(Surv(time, status) ~ group, data = rows)
fit <- survfit(Surv(time, status) ~ group, data = rows)
s <- summary(fit, times = breaks)
result <- list(
  call = "survdiff(Surv(time, status) ~ group, data = rows); summary(survfit(Surv(time, status) ~ group, data = rows), times = breaks)",
  r_version = R.version.string, survival_version = as.character(packageVersion("survival")),
  breaks = breaks, tables = tables,
  chisq = unname(sd$chisq), observed = unname(sd$obs), expected = unname(sd$exp), variance = sd$var[1, 1],
  surv_A = s$surv[s$strata == "group=A"], surv_B = s$surv[s$strata == "group=B"],
  n_risk_A = s$n.risk[s$strata == "group=A"], n_risk_B = s$n.risk[s$strata == "group=B"],
  median = unname(summary(fit)$table[, "median"])
)
write_json(result, "tests/reference/survival_values.json", digits = NA, auto_unbox = TRUE, pretty = TRUE)
