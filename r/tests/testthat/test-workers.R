test_that("workers passes through to Python: the same answer for every number, refused where nothing is drawn", {
  skip_without_dpinfer()
  a <- dp_release_count(27, 60, epsilon = 1, mechanism = "laplace", seed = 1)
  one <- dp_prop_test(a, p = 0.4, method = "jimi", n.sim = 400, seed = 3, workers = 1)
  two <- dp_prop_test(a, p = 0.4, method = "jimi", n.sim = 400, seed = 3, workers = 2)
  expect_identical(one$p.value, two$p.value)
  py <- py_dpinfer()
  expect_identical(one$p.value, py$binom_jimi_test(attr(a, "py"), p0 = 0.4, n_sim = 400L, rng = 3L,
                                                    workers = 1L)$pvalue)
  tab <- dp_release_table(matrix(c(40, 15, 10, 35), 2), epsilon = 1, seed = 3)
  expect_identical(dp_chisq_test(tab, n.sim = 400, seed = 1, workers = 1)$p.value,
                   dp_chisq_test(tab, n.sim = 400, seed = 1, workers = 2)$p.value)
  m <- dp_release_mean(c(120, 131, 125, 140, 118, 122, 135, 129, 127, 133), 80, 180, epsilon = 1, seed = 2)
  expect_identical(dp_t_test(m, mu = 120, sigma = 10, n.sim = 300, seed = 4, workers = 1)$p.value,
                   dp_t_test(m, mu = 120, sigma = 10, n.sim = 300, seed = 4, workers = 2)$p.value)
  expect_error(dp_t_test(m, mu = 120, sigma = 10, method = "naive", workers = 1), "draws nothing")
  t <- dp_release_count(20, 60, epsilon = 1, seed = 1)
  expect_error(dp_prop_test(t, p = 0.4, workers = 1), "`workers` apply to method='jimi' only")
  expect_error(dp_prop_test(t, p = 0.4, workers = 1.5), "`workers` must be one whole number")
})
