# `workers` from R in every simulating wrapper and call shape: Python's simulating function called
# directly with the same release and the same workers is the comparator, to the last bit; NULL keeps
# the serial stream; a typed value's exact test refuses workers (never drops it silently).

test_that("workers gives Python's answer for the same workers in every simulating wrapper", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  same <- function(res, ref) {
    expect_identical(res$p.value, ref$pvalue)
    expect_identical(unname(res$estimate), ref$estimate)
  }
  lap <- dp_release_count(11, 30, epsilon = 1, mechanism = "laplace", seed = 4)
  same(dp_prop_test(lap, p = 0.3, method = "jimi", n.sim = 400, seed = 1, workers = 1),
       py$binom_jimi_test(attr(lap, "py"), p0 = 0.3, n_sim = 400L, rng = 1L, workers = 1L))
  a1 <- dp_release_count(30, 60, epsilon = 1, mechanism = "laplace", seed = 1)
  a2 <- dp_release_count(20, 60, epsilon = 1, mechanism = "laplace", seed = 2)
  typed <- dp_prop_test(11.2731, 30, p = 0.3, epsilon = 1, method = "jimi", n.sim = 400, seed = 1, workers = 1)
  same(typed, py$binom_jimi_test(11.2731 / 30, 30L, 0.3, epsilon = 1, n_sim = 400L, rng = 1L, workers = 1L))
  same(dp_prop_test(list(a1, a2), method = "jimi", n.sim = 1000, seed = 3, workers = 1),
       py$binom2_jimi_test(attr(a1, "py"), attr(a2, "py"), n_sim = 1000L, rng = 3L, workers = 1L))
  tab <- dp_release_table(matrix(c(40, 15, 10, 35), 2), epsilon = 1, seed = 3)
  expect_identical(dp_chisq_test(tab, n.sim = 1000, seed = 1, workers = 1)$p.value,
                   py$independence_jimi_test(attr(tab, "py"), n_sim = 1000L, rng = 1L, workers = 1L)$pvalue)
  expect_identical(dp_chisq_test(tab, method = "mc", n.sim = 1000, seed = 1, workers = 1)$p.value,
                   py$independence_mc_test(attr(tab, "py"), n_sim = 1000L, rng = 1L, workers = 1L)$pvalue)
  set.seed(5)
  tr <- dp_release_mean(rnorm(150, 125, 15), 80, 180, epsilon = 1, spread = TRUE, seed = 6)
  co <- dp_release_mean(rnorm(150, 135, 15), 80, 180, epsilon = 1, spread = TRUE, seed = 7)
  same(dp_t_test(tr, co, n.sim = 300, seed = 1, workers = 1),
       py$mean2_jimi_test(attr(tr, "py"), attr(co, "py"), n_sim = 300L, rng = 1L, workers = 1L))
  same(dp_t_test(tr, mu = 125, method = "repro", n.sim = 99, seed = 1, workers = 1),
       py$mean_repro_test(attr(tr, "py"), 125, n_sim = 99L, rng = 1L, workers = 1L))
  set.seed(1)
  time <- c(rexp(60, 1 / 10), rexp(60, 1 / 5))
  arm <- rep(c("control", "treated"), each = 60)
  lt <- dp_release_survival(time, rep(1, 120), arm, breaks = c(3, 6, 9, 12), epsilon = 1, seed = 2)
  expect_identical(dp_survdiff(lt, n.sim = 300, workers = 1)$p.value,
                   py$logrank_test(attr(lt, "py"), n_sim = 300L, workers = 1L)$pvalue)
})

test_that("workers = NULL keeps the serial stream; bad workers and exact methods are refused", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  lap <- dp_release_count(11, 30, epsilon = 1, mechanism = "laplace", seed = 4)
  expect_identical(dp_prop_test(lap, p = 0.3, method = "jimi", n.sim = 400, seed = 1)$p.value,
                   py$binom_jimi_test(attr(lap, "py"), p0 = 0.3, n_sim = 400L, rng = 1L)$pvalue)
  tul <- dp_release_count(11, 30, epsilon = 1, seed = 1)
  expect_error(dp_prop_test(tul, p = 0.3, workers = 2), "`workers` apply to method='jimi' only")
  expect_error(dp_prop_test(11.3, 30, p = 0.3, epsilon = 1, workers = 2),
               "`workers` applies to method = \"jimi\" only \\(\"ump\" draws nothing\\)")
  expect_error(dp_prop_test(lap, p = 0.3, method = "jimi", n.sim = 100, workers = 1.5),
               "`workers` must be one whole number; got 1.5")
  expect_error(dp_prop_test(lap, p = 0.3, method = "jimi", n.sim = 100, workers = 0), "`workers` must be None, an int")
  set.seed(5)
  tr <- dp_release_mean(rnorm(150, 125, 15), 80, 180, epsilon = 1, spread = TRUE, seed = 6)
  expect_error(dp_t_test(tr, method = "naive", workers = 1), "method='naive' draws nothing")
})
