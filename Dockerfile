# The app image: the same `npm start` as on a laptop, against the DATABASE_URL it is given.
FROM node:20-slim
WORKDIR /app
ENV CI=true NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
# Dev dependencies included: npm start runs TypeScript through tsx.
RUN npm ci
COPY . .
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
CMD ["npm", "start"]
